def main():
    run(debug=True)
